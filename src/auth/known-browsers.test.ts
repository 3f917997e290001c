import { expect, test } from "bun:test";
import { KnownBrowsers } from "./known-browsers.ts";

test("a browser's token names one account and one browser; a forged, altered or other account's token is not recognised", () => {
  const browsers = new KnownBrowsers();
  const token = browsers.issue("User@firm.example");
  const key = browsers.recognise("user@firm.example", token);
  expect(key).toMatch(/^b:[A-Za-z0-9]{22}$/);
  expect(browsers.recognise("user@firm.example", browsers.issue("user@firm.example"))).not.toBe(key);
  expect(browsers.recognise("other@firm.example", token)).toBeNull();
  expect(browsers.recognise("user@firm.example", `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`)).toBeNull();
  expect(browsers.recognise("user@firm.example", `forged.${token.split(".")[1]}`)).toBeNull();
  expect(browsers.recognise("user@firm.example", undefined)).toBeNull();
  expect(new KnownBrowsers().recognise("user@firm.example", token)).toBeNull(); // another process's key
});
