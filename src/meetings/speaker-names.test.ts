import { describe, expect, test } from "bun:test";
import type { ParticipantRow } from "./store.ts";
import { speakerNamesPatch } from "./speaker-names.ts";

const row = (id: number, name: string, labels: string[]): ParticipantRow =>
  ({ id, meetingId: "m", name, email: null, speakerLabels: labels });

describe("speakerNamesPatch", () => {
  test("an unattributed label gets a new participant; a name already present takes the label", () => {
    const current = [row(1, "Alice", ["SPEAKER_00"])];
    const patch = speakerNamesPatch(current, new Map([["SPEAKER_01", "Bob"], ["SPEAKER_02", "Alice"]]));
    expect(patch.add).toEqual([{ name: "Bob", speaker_labels: ["SPEAKER_01"] }]);
    expect(patch.update).toEqual([{ id: "par_1", name: "Alice", speaker_labels: ["SPEAKER_00", "SPEAKER_02"] }]);
  });
  test("the only label of a participant renamed renames the participant; unchanged names change nothing", () => {
    const current = [row(1, "Speaker A", ["SPEAKER_00"]), row(2, "Carol", ["SPEAKER_01"])];
    const patch = speakerNamesPatch(current, new Map([["SPEAKER_00", "Alice"], ["SPEAKER_01", "Carol"]]));
    expect(patch.add).toEqual([]);
    expect(patch.update).toEqual([{ id: "par_1", name: "Alice", speaker_labels: ["SPEAKER_00"] }]);
  });
  test("one label of two renamed moves to a new participant; an empty name takes a label back", () => {
    const current = [row(1, "Team", ["SPEAKER_00", "SPEAKER_01"]), row(2, "Dan", ["SPEAKER_02"])];
    const patch = speakerNamesPatch(current, new Map([["SPEAKER_01", "Erin"], ["SPEAKER_02", " "]]));
    expect(patch.add).toEqual([{ name: "Erin", speaker_labels: ["SPEAKER_01"] }]);
    expect(patch.update).toEqual([
      { id: "par_1", name: "Team", speaker_labels: ["SPEAKER_00"] },
      { id: "par_2", name: "Dan", speaker_labels: [] },
    ]);
  });
  test("two labels typed with the same new name go to one new participant", () => {
    const patch = speakerNamesPatch([], new Map([["SPEAKER_00", "Fay"], ["SPEAKER_01", "Fay"]]));
    expect(patch.add).toEqual([{ name: "Fay", speaker_labels: ["SPEAKER_00", "SPEAKER_01"] }]);
  });
});
