/** The check digit algorithms of the structured identifiers, on strings of ASCII digits. */

/** Luhn (ISO/IEC 7812): payment card numbers. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** A big decimal number modulo m, digit by digit (a NIR's 13 digits exceed 2^53). */
export function modulo(digits: string, m: number): number {
  let rest = 0;
  for (const c of digits) rest = (rest * 10 + (c.charCodeAt(0) - 48)) % m;
  return rest;
}

/**
 * The French NIR (numéro de sécurité sociale): 13 characters and a key of 97 − (n mod 97). For a
 * birth in Corsica the department is 2A or 2B, read as 19 and 18 for the key.
 */
export function nirValid(nir: string): boolean {
  if (!/^[1-478]\d{4}(?:\d{2}|2A|2B)\d{6}\d{2}$/.test(nir)) return false;
  const body = nir.slice(0, 13);
  const n = body.includes("2A") ? body.replace("2A", "19") : body.includes("2B") ? body.replace("2B", "18") : body;
  return 97 - modulo(n, 97) === Number(nir.slice(13));
}

/** The UK NHS number: 10 digits, the last a modulus 11 check of the nine before (weights 10 to 2; 10 is never issued). */
export function nhsValid(digits: string): boolean {
  if (!/^\d{10}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (digits.charCodeAt(i) - 48) * (10 - i);
  const check = 11 - (sum % 11);
  if (check === 10) return false;
  return (check === 11 ? 0 : check) === digits.charCodeAt(9) - 48;
}

/**
 * The US Social Security number's format: area 001–899 except 666, group 01–99, serial 0001–9999,
 * less the two numbers printed on sample cards and ads (078-05-1120, 219-09-9999). It has no check digit.
 */
export function ssnValid(area: string, group: string, serial: string): boolean {
  const a = Number(area);
  if (a === 0 || a === 666 || a >= 900 || group === "00" || serial === "0000") return false;
  return !["078051120", "219099999"].includes(area + group + serial);
}
