/**
 * The items of a running production that did not start, each with its reason. The spec's status
 * stays `running` while the rest of the production runs, so this is where the portal says it.
 */
import { portalRoutes } from '../../../src/client/routes.ts';
import { useLoad } from './common.tsx';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';

export function FailedItems({ production }: { production: string }) {
  const { api } = useSession();
  const items = useLoad(() => api.call(portalRoutes.items, { query: { production } }), [api, production], 3000);
  const failed = items.data?.items.filter((item) => item.enabled && item.state === 'error') ?? [];
  if (failed.length === 0) return null;
  return (
    <div className="error-note" role="alert" aria-label="Items that did not start">
      <strong>
        {failed.length === 1 ? '1 item' : `${failed.length} items`} of {production} did not start:
      </strong>
      <ul>
        {failed.map((item) => (
          <li key={item.name} data-failed-item={item.name}>
            <a href={href('production', production)}>{item.name}</a> ({item.classname}): {item.error ?? 'no reason recorded'}
          </li>
        ))}
      </ul>
    </div>
  );
}
