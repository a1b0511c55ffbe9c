"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { SecretOnce } from "~/components/secret-once";
import { useTRPC } from "~/trpc/client";

export default function SelfChatPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const messages = useQuery(trpc.selfChat.list.queryOptions(undefined, { refetchInterval: 2000 }));
  const keys = useQuery(trpc.developerKeys.list.queryOptions());
  const refreshKeys = () => queryClient.invalidateQueries(trpc.developerKeys.list.queryFilter());
  const create = useMutation(trpc.developerKeys.create.mutationOptions({ onSuccess: refreshKeys }));
  const revoke = useMutation(trpc.developerKeys.revoke.mutationOptions({ onSuccess: refreshKeys }));
  const [origin, setOrigin] = useState("http://localhost:3000");
  useEffect(() => setOrigin(window.location.origin), []);

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Self chat</h1>
          <p className="muted">
            Notes to yourself, posted by your own scripts through the Developer API. Nobody else
            sees them.
          </p>
        </div>
      </div>
      <section className="card">
        {messages.data?.length === 0 && (
          <p className="muted">No messages yet. Post one with a developer key below.</p>
        )}
        <div className="messages" data-testid="self-messages">
          {messages.data?.map((message) => (
            <div key={message.id} className="bubble">
              {message.content}
              <time dateTime={message.createdAt}>
                {new Date(message.createdAt).toLocaleString()}
              </time>
            </div>
          ))}
        </div>
      </section>
      <section className="card stack">
        <h2>Developer keys</h2>
        <div>
          <button
            type="button"
            onClick={() => create.mutate({ scopes: ["self-chat:write"] })}
            disabled={create.isPending}
            data-testid="devkey-create"
          >
            Create key with self-chat:write
          </button>
        </div>
        {create.data && (
          <SecretOnce
            label="Your new developer key"
            value={create.data.key}
            testId="devkey-value"
          />
        )}
        {keys.data && keys.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Key</th>
                <th>Scopes</th>
                <th>Created</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => (
                <tr key={key.id}>
                  <td className="mono">{key.hint}</td>
                  <td className="mono">{key.scopes.join(", ") || "none"}</td>
                  <td>{new Date(key.createdAt).toLocaleString()}</td>
                  <td>
                    {key.revokedAt ? (
                      <span className="badge off">revoked</span>
                    ) : (
                      <span className="badge ok">active</span>
                    )}
                  </td>
                  <td>
                    {!key.revokedAt && (
                      <button
                        type="button"
                        className="danger"
                        onClick={() =>
                          window.confirm(`Revoke ${key.hint}?`) && revoke.mutate({ keyId: key.id })
                        }
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p className="muted">Post to your self chat:</p>
        <pre className="example">{`curl -X POST ${origin}/api/v1/me/messages \\
  -H "Authorization: Bearer dev:<your key>" \\
  -H "Content-Type: application/json" \\
  -d '{"content":"deploy finished"}'`}</pre>
      </section>
    </>
  );
}
