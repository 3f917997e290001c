import type { ParticipantRow } from "./store.ts";
import type { PatchMeeting } from "./schema.ts";

type ParticipantsPatch = NonNullable<PatchMeeting["participants"]>;

/**
 * The participants change that gives each speaker label the name typed for it (the web app's
 * speaker editor), under PATCH's rules: a label typed with a participant's name goes to that
 * participant; a participant whose only label is renamed is renamed; otherwise a participant is
 * added. An empty name takes the label back from whoever held it. Labels not in `names` keep
 * their holder.
 */
export function speakerNamesPatch(current: readonly ParticipantRow[], names: ReadonlyMap<string, string>): ParticipantsPatch {
  const people = current.map((p) => ({ id: `par_${p.id}`, name: p.name, labels: new Set(p.speakerLabels), changed: false }));
  const added: { name: string; labels: Set<string> }[] = [];
  const release = (label: string) => {
    for (const p of [...people, ...added]) {
      if (p.labels.delete(label) && "changed" in p) p.changed = true;
    }
  };
  for (const [label, typed] of names) {
    const name = typed.trim();
    const holder = people.find((p) => p.labels.has(label)) ?? added.find((p) => p.labels.has(label));
    if (holder?.name === name) continue;
    release(label);
    if (!name) continue;
    const named = people.find((p) => p.name === name) ?? added.find((p) => p.name === name);
    if (named) {
      named.labels.add(label);
      if ("changed" in named) named.changed = true;
    } else if (holder && "changed" in holder && holder.labels.size === 0) {
      holder.name = name;
      holder.labels.add(label);
      holder.changed = true;
    } else {
      added.push({ name, labels: new Set([label]) });
    }
  }
  return {
    add: added.map((p) => ({ name: p.name, speaker_labels: [...p.labels] })),
    update: people.filter((p) => p.changed).map((p) => ({ id: p.id, name: p.name, speaker_labels: [...p.labels] })),
    remove: [],
  };
}
