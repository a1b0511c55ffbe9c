"use client";

import { onFormSubmit } from "~/components/form";
import { Button } from "~/components/ui/button";
import ui from "~/components/ui/layout.module.css";
import styles from "./delivery-log.module.css";
import { isFiltered, type LogView, loggedEventTypes, statusChoices } from "./log-view";

type Filters = Pick<LogView, "status" | "eventType" | "eventId">;

/**
 * The log's filters: a status and an event type (each applies as it is chosen) and one event by
 * its id (applies on Enter or Find). Any change shows the newest page of what matches.
 */
export function DeliveryFilters({
  filters,
  onChange,
}: {
  filters: Filters;
  onChange: (filters: Filters) => void;
}) {
  const { status, eventType, eventId } = filters;
  return (
    <form
      className={styles.filters}
      aria-label="Filter deliveries"
      onSubmit={onFormSubmit((form) => {
        const id = String(form.get("eventId") ?? "").trim();
        onChange({ status, eventType, ...(id && { eventId: id }) });
      })}
    >
      <ChoiceFilter
        label="Status"
        any="Any status"
        value={status}
        choices={statusChoices}
        onChange={(value) => onChange({ ...filters, status: value as Filters["status"] })}
        testId="delivery-filter-status"
      />
      <ChoiceFilter
        label="Event type"
        any="Any type"
        value={eventType}
        choices={loggedEventTypes.map((type) => ({ value: type, label: type }))}
        onChange={(value) => onChange({ ...filters, eventType: value as Filters["eventType"] })}
        testId="delivery-filter-type"
      />
      <div className={`${styles.filter} ${styles.eventFilter}`}>
        <label htmlFor="delivery-event-filter">Event id</label>
        <div className={styles.find}>
          <input
            id="delivery-event-filter"
            name="eventId"
            className={ui.mono}
            placeholder="evt_…"
            autoComplete="off"
            spellCheck={false}
            defaultValue={eventId ?? ""}
            key={eventId ?? ""}
            data-testid="delivery-filter-event"
          />
          <Button type="submit" variant="secondary" small data-testid="delivery-filter-apply">
            Find
          </Button>
        </div>
      </div>
      {isFiltered(filters) && (
        <Button
          variant="secondary"
          small
          className={styles.clear}
          onClick={() => onChange({})}
          data-testid="delivery-filter-clear"
        >
          Clear filters
        </Button>
      )}
    </form>
  );
}

/** One list to pick from, labelled, with "any" first; a choice applies at once. */
function ChoiceFilter({
  label,
  any,
  value,
  choices,
  onChange,
  testId,
}: {
  label: string;
  any: string;
  value: string | undefined;
  choices: { value: string; label: string }[];
  onChange: (value: string | undefined) => void;
  testId: string;
}) {
  return (
    <label className={styles.filter}>
      {label}
      <select
        value={value ?? ""}
        onChange={(event) => onChange(event.target.value || undefined)}
        data-testid={testId}
      >
        <option value="">{any}</option>
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </label>
  );
}
