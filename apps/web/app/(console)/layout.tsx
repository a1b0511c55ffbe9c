import type { ReactNode } from "react";
import { requireSessionUser } from "~/auth/session";
import { ConsoleNav } from "~/components/console-nav";

export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await requireSessionUser();
  return (
    <div className="shell">
      <ConsoleNav name={user.name} num={user.num} />
      <main className="main">{children}</main>
    </div>
  );
}
