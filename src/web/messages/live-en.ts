/** The live transcript's strings (issue 25, item 8), in English (spread into messages/en.ts). */
export const liveEn = {
  "live.title": "Live transcript",
  "live.provisional": "Provisional",
  "live.note": "Written as you speak, a few seconds behind. The full transcript replaces it once the recording is finished and processed.",
  "live.waiting": "Listening… the first words appear a few seconds after you start speaking.",
};
