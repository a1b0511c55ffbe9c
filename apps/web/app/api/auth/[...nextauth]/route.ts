import NextAuth from "next-auth";
import { getAuthOptions } from "~/auth/options";

type Context = { params: Promise<{ nextauth: string[] }> };

async function handler(request: Request, context: Context) {
  return NextAuth(
    request as never,
    { params: await context.params } as never,
    await getAuthOptions(),
  );
}

export { handler as GET, handler as POST };
