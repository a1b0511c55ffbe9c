// `npm run start:web` / `start:worker` (the production roles) run only with what a production
// instance must be given: its database and both keys. `npm start` generates the keys and keeps
// them in .data/keys.json; a process started on its own must not make its own (each would
// differ, and a generated key would end up beside what it protects).
const role = process.argv[2] ?? "this role";
const needed = {
  DATABASE_URL: "the Postgres it serves from (npm start runs everything on an embedded one)",
  AUTH_SECRET: "signs console sessions (32+ characters, the same for every web process)",
  SECRETS_KEY: "seals webhook secrets at rest (32+ characters, the same for every process)",
  VAPID_PUBLIC_KEY: "the instance's Web Push key pair, public half (the same for every process)",
  VAPID_PRIVATE_KEY: "its private half (npx web-push generate-vapid-keys makes a pair)",
};
const missing = Object.keys(needed).filter((name) => !process.env[name]);
if (missing.length > 0) {
  console.error(`start:${role} needs ${missing.join(", ")} set:`);
  for (const name of missing) console.error(`  ${name}: ${needed[name]}`);
  console.error(
    "Generate a key with: openssl rand -base64 32 (VAPID pair: npx web-push generate-vapid-keys)",
  );
  process.exit(1);
}
