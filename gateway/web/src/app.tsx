/**
 * The shell: header (product, project switcher, navigation to the screens the user may open, who is
 * signed in), the screen of the current route, and the toast and conflict hosts. It also guards
 * routes: the signed-out go to sign-in keeping the wanted route, a user without the screen's
 * operation gets a plain refusal.
 */
import { useEffect } from 'preact/hooks';
import { mayOpen, needsSignIn } from './access';
import { showError } from './api/client';
import { chooseProject, currentProject, loadProjects, projects } from './projects';
import { findRoute } from './path-match';
import { location, navigate } from './router';
import { HOME_PATH, ROUTES, type RouteDefinition } from './routes';
import { safeNext } from './screens/sign-in';
import { currentUser, grants, signInPath } from './session';
import { ConflictHost } from './ui/conflict-dialog';
import { EmptyState, Loading } from './ui/empty-state';
import { Toasts } from './ui/toast';
import './app.css';
import { Options } from './ui/field';

function mayOpenRoute(route: RouteDefinition): boolean {
  return mayOpen(route.access, grants.value);
}

function ProjectSwitcher() {
  const list = projects.value;
  const current = currentProject.value;
  if (!list) return null;
  if (list.length === 0) return <span class="muted">No projects</span>;
  return (
    <label class="project-switcher">
      <span class="visually-hidden">Project</span>
      <select value={current?.slug ?? ''} onChange={(event) => chooseProject(event.currentTarget.value)}>
        <Options options={list.map((project) => ({ value: project.slug, label: project.name }))} />
      </select>
    </label>
  );
}

function Navigation() {
  const path = location.value.path;
  const project = currentProject.value;
  const links = ROUTES.filter((route) => route.nav && mayOpenRoute(route));
  const section = (name: 'work' | 'admin', label: string) => {
    const items = links.filter((route) => route.nav!.section === name);
    if (items.length === 0) return null;
    return (
      <ul class="nav-section" aria-label={label}>
        {items.map((route) => (
          <li key={route.path}>
            <a
              href={project && name === 'work' ? `${route.path}?project=${project.slug}` : route.path}
              aria-current={path === route.path ? 'page' : undefined}
            >
              {route.nav!.label}
            </a>
          </li>
        ))}
      </ul>
    );
  };
  return (
    <nav class="nav" aria-label="Main">
      {section('work', 'Work')}
      {section('admin', 'Administration')}
    </nav>
  );
}

function Header() {
  const user = currentUser.value;
  return (
    <header class="header">
      <a class="brand" href={HOME_PATH}>
        Tix
      </a>
      {user && <ProjectSwitcher />}
      {user && <Navigation />}
      {user && (
        <div class="user">
          <span>
            {user.name} <span class="role">{user.role.replace('_', ' ')}</span>
          </span>
          <a href="/sign-out">Sign out</a>
        </div>
      )}
    </header>
  );
}

function Screen() {
  const { path, query } = location.value;
  const user = currentUser.value;
  const found = path === '/' ? null : findRoute(ROUTES, path);

  // Redirects happen after render, in an effect: rendering stays free of side effects.
  const redirect =
    path === '/'
      ? user
        ? HOME_PATH
        : signInPath(HOME_PATH)
      : found && needsSignIn(found.route.access) && user === null
        ? signInPath()
        : found?.route.access === 'signed_out' && user
          ? // Where sign-in itself goes next, so the two never race to different places.
            safeNext(query.get('next'))
          : null;
  useEffect(() => {
    if (redirect) navigate(redirect, { replace: true });
  }, [redirect]);
  useEffect(() => {
    document.title = found ? `${found.route.title} · Tix` : 'Tix';
  }, [found?.route.title]);

  if (redirect) return <Loading what="the page" />;
  if (!found) {
    return (
      <section class="screen">
        <h1>Page not found</h1>
        <EmptyState title={`Nothing lives at ${path}.`}>
          <a href={HOME_PATH}>Go to the board</a>
        </EmptyState>
      </section>
    );
  }
  if (!mayOpenRoute(found.route)) {
    return (
      <section class="screen">
        <h1>{found.route.title}</h1>
        <EmptyState title="Your role does not give access to this page." />
      </section>
    );
  }
  const ScreenComponent = found.route.screen;
  return <ScreenComponent params={found.params} query={query} />;
}

export function App() {
  const user = currentUser.value;
  useEffect(() => {
    if (user) loadProjects().catch(showError);
    else projects.value = null;
  }, [user?.id]);

  if (user === undefined) return <Loading what="Tix" />;
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header />
      <main id="main" tabIndex={-1}>
        <Screen />
      </main>
      <Toasts />
      <ConflictHost />
    </>
  );
}
