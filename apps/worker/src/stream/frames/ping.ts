import type { ClientFrame } from "@switchboard/contract";
import type { StreamConnection } from "../connection";

/** `ping`: re-authorize (a paused or revoked agent is closed with 1008), then `pong`. */
export async function handlePing(
  connection: StreamConnection,
  _frame: Extract<ClientFrame, { type: "ping" }>,
) {
  if (await connection.reauthorize()) connection.send({ type: "pong" });
}
