// Every table of the service, for drizzle queries and drizzle-kit's migration generator.
export * from "../auth/table.ts";
export * from "../clients/table.ts";
export * from "../feedback/table.ts";
export * from "../meetings/table.ts";
export * from "../jobs/table.ts";
export * from "../events/table.ts";
export * from "../idempotency/table.ts";
