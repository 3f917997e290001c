-- Full-text index over each meeting's title, AI report and transcript (GET /v1/meetings?q=).
-- Written by the service whenever one of the three changes; unicode61 folds case and diacritics.
CREATE VIRTUAL TABLE `meetings_fts` USING fts5(
	`meeting_id` UNINDEXED,
	`title`,
	`report`,
	`transcript`,
	tokenize = 'unicode61 remove_diacritics 2'
);
