import type { ClientFrame } from "@switchboard/contract";
import type { FrameContext } from "../frame-context";

/**
 * `ping`: re-authorize (a paused or revoked agent is closed with 1008), then `pong`; the event
 * log is re-read too, so a lost wake-up cannot hold events back.
 */
export async function handlePing(
  context: FrameContext,
  _frame: Extract<ClientFrame, { type: "ping" }>,
) {
  if (!(await context.reauthorize())) return;
  context.send({ type: "pong" });
  context.catchUp();
}
