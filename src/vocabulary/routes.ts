import { apiActor } from "../auth/actor.ts";
import { access, defineRoute } from "../http/route.ts";
import { renderTerm, type VocabularyApp } from "./app.ts";
import { createTermBody, patchTermBody, termListSchema, termParams, termSchema } from "./schema.ts";

/** /v1/vocabulary: the account's glossary (issue 23), read with read:meetings, changed with write:meetings. */
export function vocabularyRoutes(deps: { vocabulary: VocabularyApp }) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/vocabulary",
      operationId: "listVocabulary",
      summary: "The account's glossary, oldest term first; whole (at most 500 terms), not paged",
      tag: "Vocabulary",
      access: access.allOf("read:meetings"),
      responses: { 200: { description: "The glossary", schema: termListSchema } },
      handle: async ({ principal }) => ({
        status: 200,
        body: { object: "list" as const, data: (await deps.vocabulary.list(apiActor(principal))).map(renderTerm) },
      }),
    }),
    defineRoute({
      method: "POST",
      path: "/api/v1/vocabulary",
      operationId: "createVocabularyTerm",
      summary:
        "Add a term, with the spoken variants a finished transcript replaces by it; 409 vocabulary_term_exists when the glossary holds it in any case, 400 too_many_terms beyond 500",
      tag: "Vocabulary",
      access: access.allOf("write:meetings"),
      body: createTermBody,
      responses: { 201: { description: "The term", schema: termSchema } },
      errors: ["malformed_body", "unsupported_media_type", "vocabulary_term_exists"],
      handle: async ({ principal, body }) => ({ status: 201, body: renderTerm(await deps.vocabulary.create(apiActor(principal), body)) }),
    }),
    defineRoute({
      method: "PATCH",
      path: "/api/v1/vocabulary/:term_id",
      operationId: "updateVocabularyTerm",
      summary: "Change a term's spelling or replace its variants",
      tag: "Vocabulary",
      access: access.allOf("write:meetings"),
      params: termParams,
      body: patchTermBody,
      responses: { 200: { description: "The term", schema: termSchema } },
      errors: ["malformed_body", "unsupported_media_type", "vocabulary_term_exists"],
      handle: async ({ principal, params, body }) => ({
        status: 200,
        body: renderTerm(await deps.vocabulary.update(apiActor(principal), params.term_id, body)),
      }),
    }),
    defineRoute({
      method: "DELETE",
      path: "/api/v1/vocabulary/:term_id",
      operationId: "deleteVocabularyTerm",
      summary: "Delete a term (transcripts it already changed keep the change, and its correction)",
      tag: "Vocabulary",
      access: access.allOf("write:meetings"),
      params: termParams,
      responses: { 204: { description: "Deleted" } },
      handle: async ({ principal, params }) => {
        await deps.vocabulary.delete(apiActor(principal), params.term_id);
        return { status: 204 };
      },
    }),
  ];
}
