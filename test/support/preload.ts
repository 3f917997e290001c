// bunfig.toml's test preload: on the PostgreSQL run of the suite, the migrated template every test
// database is copied from is made before the first test file starts.
import { ensureTemplate } from "./postgres.ts";

await ensureTemplate();
