import { handleTrpcRequest } from "~/trpc/handler";

/** The console's tRPC endpoint; procedures live in src/trpc/routers. */
function handler(request: Request) {
  return handleTrpcRequest(request);
}

export { handler as GET, handler as POST };
