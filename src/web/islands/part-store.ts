/**
 * The recorder's parts kept in IndexedDB until the server has them: a closed tab, a crash or a
 * network cut loses at most the part being recorded. One record per part, keyed by draft and number.
 */
export interface StoredPart {
  draft: string;
  index: number;
  blob: Blob;
}

const request = <T>(req: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });

export async function openPartStore() {
  const open = indexedDB.open("verbatim-recorder", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("parts", { keyPath: ["draft", "index"] });
  const db = await request(open);
  const store = (mode: IDBTransactionMode) => db.transaction("parts", mode).objectStore("parts");
  return {
    put: (part: StoredPart) => request(store("readwrite").put(part)),
    remove: (draft: string, index: number) => request(store("readwrite").delete([draft, index])),
    all: () => request(store("readonly").getAll() as IDBRequest<StoredPart[]>),
  };
}
