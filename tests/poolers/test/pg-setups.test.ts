// The `pg` set-ups of the README and the Postgres guides (store over a pool or a client, plain and transactional,
// with the delivery journal), default options, behind PgBouncer in transaction and session mode.
import { poolerSuite } from "./support/pooler-suite.js";
import { pgSetups } from "./support/setups.js";

poolerSuite("pg set-ups", pgSetups);
