import { defineConfig } from "drizzle-kit";

// Migrations are generated into the top-level drizzle/ folder and committed; never `push`.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/schema/index.ts",
  out: "../../drizzle",
  casing: "snake_case",
});
