"use client";

import Link from "next/link";
import { notFound, useParams } from "next/navigation";
import { useId, useState } from "react";
import { Button } from "~/components/ui/button";
import ui from "~/components/ui/layout.module.css";
import { CreateRecord } from "../_components/create-record";
import { ExportDecisions } from "../_components/export-decisions";
import { RecordList } from "../_components/record-list";
import { type RecordType, sectionOf, sections } from "../_components/sections";
import styles from "../records.module.css";

/**
 * A person's own tasks, reminders, events or notes: what agents created with their approval and
 * what they added themselves. Each change runs the same skill an approved card runs.
 */
export default function RecordsPage() {
  const section = sectionOf(useParams<{ type: string }>().type);
  // The new-record form waits behind its button, so the page opens on the list; it is open for
  // one type only (switching tabs closes it).
  const [addingType, setAddingType] = useState<RecordType | null>(null);
  const formId = useId();
  if (!section) notFound();
  const adding = addingType === section.type;
  return (
    <>
      <title>{`${section.title} · Records · Switchboard`}</title>
      <div className={ui.pageHead}>
        <div>
          <h1>Your records</h1>
          <p className={ui.muted}>
            Agents you let see a kind of record can see these; they change them only through cards
            you approve (or the new records you let them create without asking).
          </p>
        </div>
        <ExportDecisions />
      </div>
      <nav className={styles.tabs} aria-label="Record types">
        {Object.entries(sections).map(([slug, { title }]) => (
          <Link
            key={slug}
            href={`/records/${slug}`}
            className={styles.tab}
            aria-current={section.title === title ? "page" : undefined}
            data-testid={`records-tab-${slug}`}
          >
            {title}
          </Link>
        ))}
      </nav>
      <RecordList
        type={section.type}
        title={section.title}
        newButton={
          <Button
            variant={adding ? "secondary" : undefined}
            aria-expanded={adding}
            aria-controls={formId}
            onClick={() => setAddingType(adding ? null : section.type)}
            data-testid="record-new"
          >
            New {section.type}
          </Button>
        }
      />
      {adding && (
        <CreateRecord id={formId} type={section.type} onClose={() => setAddingType(null)} />
      )}
    </>
  );
}
