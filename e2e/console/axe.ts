import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/** The rules whose outcome depends on colours: all a page checked already needs in another theme. */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/**
 * axe's serious and critical findings on the page (or only within `within`), as readable lines:
 * empty when there are none. With `colours`, only the colour rules run (a page already checked
 * whole, seen again in another colour scheme).
 */
export async function seriousViolations(
  page: Page,
  options: { within?: string; colours?: boolean } = {},
): Promise<string[]> {
  const { within, colours } = options;
  let axe = new AxeBuilder({ page });
  axe = colours
    ? axe.withRules(COLOUR_RULES)
    : axe.withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]);
  // Legacy mode runs axe.run() in the page itself. The default injects axe into every frame and
  // then finishes the run in a new blank tab, which doubled the time of each check here. Legacy
  // mode skips only cross-origin frames, which the console's policy never loads.
  axe = axe.setLegacyMode();
  if (within) axe = axe.include(within);
  const results = await axe.analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(" "))
          .join(" | ")}`,
    );
}
