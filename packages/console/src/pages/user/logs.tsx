import { useState } from 'preact/hooks';
import { ErrorNote, Pager, when } from '../../components.js';
import { useLoaded } from '../../hooks.js';
import type { LogEvent } from '../../types.js';
import type { UserSectionProps } from '../user-detail.js';

const PER_PAGE = 20;

/** The platform's event codes a user's log shows most, in words; other codes are shown as they are. */
const EVENTS: Record<string, string> = {
  s: 'Successful login',
  f: 'Failed login',
  fp: 'Wrong password',
  fu: 'Unknown user',
  ss: 'Successful signup',
  fs: 'Failed signup',
  ssa: 'Silent authentication',
  fsa: 'Failed silent authentication',
  seacft: 'Code exchanged for tokens',
  feacft: 'Failed code exchange',
  sertft: 'Refresh token exchanged',
  fertft: 'Failed refresh token exchange',
  ferrt: 'Reused refresh token refused',
  slo: 'Logout',
  scp: 'Password changed',
  fcp: 'Failed password change',
  sv: 'E-mail verified',
  scpr: 'Password reset requested',
  limit_wc: 'Blocked after failed logins',
  gd_enrollment_complete: 'Second factor enrolled',
  gd_unenroll: 'Second factor removed',
  du: 'User deleted',
  sapi: 'Management API change',
  fapi: 'Failed Management API call',
};

/** The user's part of the tenant log, newest first, paged on the server. */
export function UserLogs({ api, userPath }: UserSectionProps) {
  const [page, setPage] = useState(0);
  const list = useLoaded(
    () => api<{ logs: LogEvent[]; total: number }>('GET', `${userPath}/logs?include_totals=true&page=${page}&per_page=${PER_PAGE}`),
    [api, userPath, page],
  );
  return (
    <>
      <ErrorNote error={list.error} />
      {list.data ? (
        <>
          <table>
            <caption class="visually-hidden">Log events of the user</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">When</th>
                <th scope="col">Application</th>
                <th scope="col">Address</th>
              </tr>
            </thead>
            <tbody>
              {list.data.logs.map((event) => (
                <tr key={event.log_id}>
                  <td>
                    {EVENTS[event.type] ?? event.description ?? event.type} <code>{event.type}</code>
                    {event.description && EVENTS[event.type] ? <small>{event.description}</small> : null}
                  </td>
                  <td>{when(event.date)}</td>
                  <td>{event.client_name ?? event.client_id}</td>
                  <td>{event.ip}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.logs.length === 0 ? <p>No event recorded for this user.</p> : <Pager page={page} perPage={PER_PAGE} total={list.data.total} label="Events" onPage={setPage} />}
        </>
      ) : !list.error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </>
  );
}
