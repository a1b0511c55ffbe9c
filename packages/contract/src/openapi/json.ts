/** A piece of the published document, as plain JSON. */
export type Json = Record<string, unknown>;

/** A reference to a named component. */
export const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
