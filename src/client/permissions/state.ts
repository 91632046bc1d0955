// The permission requests' slice of the store: the requests shown until answered.
import type { PendingPermission } from '../session/views.ts';

/** The fields the permission requests add to the store's state. */
export interface PermissionSlice {
  permissions: PendingPermission[];
}
