import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

/** Who the test client says it is: its name, where it is sent back to, and its `state`. */
export interface MemoryClient {
  name: string;
  redirect: string;
  state: string;
}

/**
 * For tests (`@switchboard/web/testing`): the MCP SDK's OAuth client provider kept in memory.
 * The "browser" is the authorization URL it keeps; the tokens and the registration are fields a
 * test reads and changes (an expired access token, a refresh).
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  constructor(
    private readonly client: MemoryClient,
    info?: OAuthClientInformationMixed,
  ) {
    this.info = info;
  }
  get redirectUrl() {
    return this.client.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.client.name,
      redirect_uris: [this.client.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return this.client.state;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
