/// <reference lib="dom" />
/**
 * This browser's identity key: IndexedDB database `handoff`, object store `keys`, one record per
 * membership id. The private key is a NON-extractable CryptoKey (structured-cloned by IndexedDB),
 * so no script, ours included, can read its bytes back out.
 */
export interface StoredKey {
  membershipId: string;
  privateKey: CryptoKey;
  publicKey: string;
  fingerprint: string;
  storedAt: string;
}

const DATABASE = 'handoff';
const STORE = 'keys';

const openDatabase = () =>
  new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => {
      if (!request.result.objectStoreNames.contains(STORE)) request.result.createObjectStore(STORE, { keyPath: 'membershipId' });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB is not available'));
  });

const run = async <T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>) => {
  const database = await openDatabase();
  try {
    return await new Promise<T>((resolve, reject) => {
      const transaction = database.transaction(STORE, mode);
      const request = work(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error ?? request.error);
      transaction.onabort = () => reject(transaction.error ?? new Error('IndexedDB transaction aborted'));
    });
  } finally {
    database.close();
  }
};

export const loadKey = async (membershipId: string): Promise<StoredKey | null> =>
  ((await run('readonly', (store) => store.get(membershipId))) as StoredKey | undefined) ?? null;

export const saveKey = async (key: StoredKey) => {
  if (key.privateKey.extractable) throw new Error('refusing to store an extractable private key');
  await run('readwrite', (store) => store.put(key));
};

export const forgetKey = async (membershipId: string) => {
  await run('readwrite', (store) => store.delete(membershipId));
};
