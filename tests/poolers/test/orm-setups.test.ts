// Every ORM binding on PostgreSQL (Prisma over @prisma/adapter-pg, TypeORM, Knex, Kysely, Drizzle, Sequelize), as its
// guide shows it: transactional, the journal on the same binding, default options, behind PgBouncer in transaction
// and session mode.
import { poolerSuite } from "./support/pooler-suite.js";
import { ormSetups } from "./support/setups.js";

poolerSuite("ORM set-ups", ormSetups);
