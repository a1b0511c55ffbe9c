"use client";

import { useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { Compose } from "../_components/compose";

function NewEmail() {
  return <Compose initialTo={useSearchParams().get("to") ?? ""} />;
}

export default function NewEmailPage() {
  return (
    <Suspense>
      <NewEmail />
    </Suspense>
  );
}
