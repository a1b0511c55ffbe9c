import { GuidePage } from "../guide";

export const metadata = { title: "Quickstart · Switchboard" };

/**
 * `/docs/quickstart`: the five-minute quickstart (docs/quickstart.md), with this instance's
 * addresses where the file says the default ports.
 */
export default function QuickstartPage() {
  return <GuidePage guide="quickstart" />;
}
