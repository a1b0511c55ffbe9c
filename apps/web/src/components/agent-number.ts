/**
 * An agent number as a person types it — "800382304", " 800-382-304 ", "800 382 304" — in the
 * form the service knows ("800-382-304"). Anything else (an id, a typo) is passed on trimmed, so
 * the lookup can say it found nothing.
 */
export function normalizeAgentNumber(input: string): string {
  const trimmed = input.trim();
  const digits = /^800[\s.-]*(\d{3})[\s.-]*(\d{3})$/.exec(trimmed);
  return digits ? `800-${digits[1]}-${digits[2]}` : trimmed;
}
