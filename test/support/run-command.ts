/** Runs a command-line tool the tests read files with (pdftotext, pdffonts, unzip...) and answers its stdout; a non-zero exit throws with its stderr. */
export async function runCommand(command: string[]): Promise<string> {
  const proc = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${command[0]} failed (${code}): ${err}`);
  return out;
}
