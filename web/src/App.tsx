/** The portal shell: sign-in gate, navigation, namespace picker, and the page of the current hash. */
import type { ReactNode } from 'react';
import { mayLeave } from './components/unsaved-guard.ts';
import { Alerts } from './pages/Alerts.tsx';
import { Configuration } from './pages/Configuration.tsx';
import { DtlEditor } from './pages/DtlEditor.tsx';
import { DtlList } from './pages/DtlList.tsx';
import { DtlTester } from './pages/DtlTester.tsx';
import { EventLog } from './pages/EventLog.tsx';
import { MessageDetail, Messages } from './pages/Messages.tsx';
import { Lookups } from './pages/Lookups.tsx';
import { Monitor } from './pages/Monitor.tsx';
import { Productions } from './pages/Productions.tsx';
import { Queues } from './pages/Queues.tsx';
import { RuleEditor } from './pages/RuleEditor.tsx';
import { RuleList } from './pages/RuleList.tsx';
import { RuleTestPage } from './pages/RuleTester.tsx';
import { Schemas } from './pages/Schemas.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { Store } from './pages/Store.tsx';
import { TestComponent } from './pages/TestComponent.tsx';
import { Trace } from './pages/Trace.tsx';
import { Users } from './pages/Users.tsx';
import { href, useRoute, type Route } from './router.ts';
import { SessionGate, useSession } from './session.tsx';

const sections: Array<{ key: string; label: string }> = [
  { key: 'productions', label: 'Productions' },
  { key: 'monitor', label: 'Monitor' },
  { key: 'alerts', label: 'Alerts' },
  { key: 'log', label: 'Event log' },
  { key: 'messages', label: 'Messages' },
  { key: 'queues', label: 'Queues' },
  { key: 'test', label: 'Test' },
  { key: 'dtl', label: 'DTL' },
  { key: 'rules', label: 'Rules' },
  { key: 'schemas', label: 'Schemas' },
  { key: 'lookups', label: 'Lookups' },
  { key: 'store', label: 'Store' },
];
/** Sections only an admin sees (a viewer or operator opening the address is told it is for admins). */
const adminSections: Array<{ key: string; label: string }> = [{ key: 'users', label: 'Users' }];

function page(route: Route): ReactNode {
  const [section = 'productions', id, name] = route.parts;
  switch (section) {
    case 'log':
      return <EventLog />;
    case 'messages':
      return id ? <MessageDetail key={id} id={Number(id)} /> : <Messages key={route.query.toString()} query={route.query} />;
    case 'queues':
      return <Queues />;
    case 'monitor':
      return <Monitor />;
    case 'alerts':
      return <Alerts />;
    case 'test':
      return <TestComponent />;
    case 'schemas':
      return <Schemas />;
    case 'lookups':
      return <Lookups />;
    case 'users':
      return <Users />;
    case 'store':
      return <Store />;
    case 'dtl':
      if (id === 'edit' && name) return <DtlEditor key={name} name={name} query={route.query} />;
      if (id === 'test' && name) return <DtlTester key={name} name={name} />;
      return <DtlList />;
    case 'rules':
      if (id === 'edit' && name) return <RuleEditor key={name} name={name} />;
      if (id === 'test' && name) return <RuleTestPage key={name} name={name} />;
      return <RuleList />;
    case 'production':
      return <Configuration key={id} production={id ?? ''} />;
    case 'trace':
      return <Trace key={id} session={Number(id)} />;
    default:
      return <Productions />;
  }
}

function Shell() {
  const session = useSession();
  const route = useRoute();
  const active = route.parts[0] ?? 'productions';
  return (
    <div className="shell">
      <header className="top-bar">
        <a className="brand" href={href('productions')}>
          Conveyor
        </a>
        <nav aria-label="Sections">
          {[...sections, ...(session.can('admin') ? adminSections : [])].map((section) => (
            <a
              key={section.key}
              href={href(section.key)}
              className={active === section.key ? 'active' : ''}
              aria-current={active === section.key ? 'page' : undefined}
            >
              {section.label}
            </a>
          ))}
        </nav>
        <label className="namespace">
          Namespace
          <select value={session.namespace} onChange={(e) => mayLeave() && session.setNamespace(e.target.value)} aria-label="Namespace">
            {session.who.namespaces.map((namespace) => (
              <option key={namespace}>{namespace}</option>
            ))}
          </select>
        </label>
        <span className="user" title={`Role: ${session.who.role}`}>
          {session.who.user} · {session.who.role}
        </span>
        <button type="button" className="link" onClick={() => mayLeave() && session.signOut()}>
          Sign out
        </button>
      </header>
      <main className="content" key={session.namespace}>
        {page(route)}
      </main>
    </div>
  );
}

export function App() {
  return (
    <SessionGate signInPage={(done, ended) => <SignIn onSignedIn={done} ended={ended} />}>
      <Shell />
    </SessionGate>
  );
}
