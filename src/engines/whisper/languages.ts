import { EngineError } from "../types.ts";

/** The languages whisper knows, by the codes whisper.cpp uses (its g_lang table). */
export const WHISPER_LANGUAGES: ReadonlySet<string> = new Set(
  (
    "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy sk te " +
    "fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo ht ps " +
    "tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue"
  ).split(" "),
);

/**
 * The whisper code for a requested language: "en", "EN" and "en-GB" give "en"; null stays null
 * (detect). A language whisper does not know is refused rather than passed on, since whisper.cpp
 * does not reject it cleanly.
 */
export function whisperLanguage(language: string | null): string | null {
  if (language === null || language.trim() === "" || language.trim().toLowerCase() === "auto") return null;
  const code = language.trim().toLowerCase().split(/[-_]/)[0]!;
  const aliases: Record<string, string> = { iw: "he", jv: "jw", nb: "no" };
  const resolved = aliases[code] ?? code;
  if (!WHISPER_LANGUAGES.has(resolved)) {
    throw new EngineError("unsupported_language", `Whisper cannot transcribe the language "${language}".`, false);
  }
  return resolved;
}
