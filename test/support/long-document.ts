// A generated document of about ten rendered pages, for the render tests and bench/documents.ts.

/** A document of about ten pages: sections of paragraphs, lists and a table each. */
export function longMarkdown(sections = 30): string {
  const parts: string[] = ["# Compte rendu détaillé"];
  for (let i = 1; i <= sections; i++) {
    parts.push(
      `## Section ${i} : décisions et échéances`,
      `Élodie a rappelé que la réunion n°${i} devait traiter du budget, des délais et des risques ; Łukasz a présenté les chiffres. `.repeat(3),
      `- Point ${i}.1 : **valider** le périmètre\n- Point ${i}.2 : _relancer_ le client\n  - sous-point ${i}`,
      `| Action | Responsable | Échéance |\n|---|---|---|\n| Note ${i} | Élodie | 2026-12-0${(i % 9) + 1} |\n| Suivi ${i} | Łukasz | 2026-12-1${i % 10} |`,
    );
  }
  return parts.join("\n\n");
}

