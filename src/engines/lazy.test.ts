import { describe, expect, test } from "bun:test";
import { lazy } from "./lazy.ts";

describe("lazy", () => {
  test("creates nothing until first use, then once, for concurrent first uses too", async () => {
    let created = 0;
    const get = lazy(async () => {
      created++;
      await Bun.sleep(5);
      return { n: created };
    });
    expect(created).toBe(0);
    expect(get.current).toBeUndefined();
    const [a, b] = await Promise.all([get(), get()]);
    expect(a).toBe(b);
    expect(await get()).toBe(a);
    expect(created).toBe(1);
    expect(get.current).toBe(a);
  });

  test("a failed creation fails its callers and is tried again on the next use", async () => {
    let attempts = 0;
    const get = lazy(async () => {
      attempts++;
      if (attempts < 3) throw new Error(`attempt ${attempts}`);
      return "loaded";
    });
    const concurrent = await Promise.allSettled([get(), get()]);
    expect(concurrent.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(attempts).toBe(1);
    await expect(get()).rejects.toThrow("attempt 2");
    expect(get.current).toBeUndefined();
    expect(await get()).toBe("loaded");
    expect(attempts).toBe(3);
  });

  test("reset hands back the value and the next use creates a new one", async () => {
    let n = 0;
    const get = lazy(async () => ++n);
    expect(await get.reset()).toBeUndefined();
    expect(await get()).toBe(1);
    expect(await get.reset()).toBe(1);
    expect(get.current).toBeUndefined();
    expect(await get()).toBe(2);
    // A reset while a creation fails hands back nothing and throws nothing.
    const failing = lazy(async () => Promise.reject(new Error("no")));
    const first = failing();
    expect(await failing.reset()).toBeUndefined();
    await expect(first).rejects.toThrow("no");
  });
});
