import { metrics } from "../metrics";

/**
 * Group commit for the drains' statements (decision 0057). Items asked for in the same turn of
 * the event loop go together, and so do those asked for while a statement is in flight. An
 * idle worker adds no wait, and a busy one writes one statement for many drains. `run` answers
 * every item of its group itself and never throws.
 */
export class GroupedStatements<Item> {
  private waiting: Item[] = [];
  private flushing = false;

  constructor(
    /** The metric's label: what the statement does. */
    private readonly statement: "due_read" | "settle",
    /** The most items one statement carries. */
    private readonly max: number,
    private readonly run: (group: Item[]) => Promise<void>,
  ) {}

  add(item: Item): void {
    this.waiting.push(item);
    if (this.flushing) return;
    this.flushing = true;
    queueMicrotask(() => void this.flush());
  }

  private async flush() {
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0, this.max);
        metrics.webhookBatches.observe({ statement: this.statement }, group.length);
        await this.run(group);
      }
    } finally {
      this.flushing = false;
    }
  }
}
