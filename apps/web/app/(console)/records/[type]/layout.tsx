import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { getQueryClient, HydrateClient, prefetch, trpc } from "~/trpc/server";
import { sectionOf } from "../_components/sections";

/**
 * A records page, rendered with its records read on the server, and the cards that created
 * them (the page itself is interactive throughout).
 */
export default async function RecordsLayout({
  params,
  children,
}: {
  params: Promise<{ type: string }>;
  children: ReactNode;
}) {
  const section = sectionOf((await params).type);
  // An unknown kind is the console's 404, from the server (with its title), not the browser's.
  if (!section) notFound();
  const records = trpc.records.list.queryOptions({ type: section.type });
  await prefetch(records);
  // The page asks for the cards of the records it lists, in their order, once there are any.
  const recordIds = getQueryClient()
    .getQueryData(records.queryKey)
    ?.map((record) => record.id);
  const cards = recordIds?.length ? [trpc.records.cards.queryOptions({ recordIds })] : [];
  return <HydrateClient queries={[records, ...cards]}>{children}</HydrateClient>;
}
