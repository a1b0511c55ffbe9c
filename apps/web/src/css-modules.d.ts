// Next's ambient types (CSS modules among them); next-env.d.ts, which says the same, is generated at build.
/// <reference types="next" />
