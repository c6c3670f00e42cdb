// drizzle-kit settings: `npm run db:generate` writes migrations to drizzle/ and embeds them for the bundle.
import { defineConfig } from "drizzle-kit"

export default defineConfig({
  dialect: "sqlite",
  schema: "./adapters/storage/tables",
  out: "./drizzle",
})
