import DataLoader from 'dataloader';

/**
 * A DataLoader per GraphQL request (keyed by its context object): every load of one tick in that request becomes one
 * batched call, and the loader goes with the request.
 */
export function perRequestLoader<K, V, C = K>(batch: (keys: readonly K[]) => Promise<V[]>, options?: DataLoader.Options<K, V, C>): (ctx: object) => DataLoader<K, V, C> {
  const loaders = new WeakMap<object, DataLoader<K, V, C>>();
  return (ctx) => {
    let loader = loaders.get(ctx);
    if (!loader) {
      loader = new DataLoader(batch, options);
      loaders.set(ctx, loader);
    }
    return loader;
  };
}
