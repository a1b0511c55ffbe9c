import { redirect } from "next/navigation";

export default function RecordsPage() {
  redirect("/records/tasks");
}
