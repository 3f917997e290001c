-- One word for the AI report across code, tables and docs: the table is the meeting's report.
-- (The API keeps calling it the summary, as SPEC does.) SQLite renames the foreign key with it.
ALTER TABLE `summaries` RENAME TO `reports`;
