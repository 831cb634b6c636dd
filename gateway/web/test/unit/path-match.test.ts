import { expect } from 'chai';
import { findRoute, matchPath } from '../../src/path-match';

describe('path matching', () => {
  it('matches a literal path with no parameters', () => {
    expect(matchPath('/board', '/board')).to.deep.equal({});
    expect(matchPath('/admin/users', '/admin/users/')).to.deep.equal({});
  });

  it('takes :name parameters, decoded', () => {
    expect(matchPath('/tickets/:id', '/tickets/42')).to.deep.equal({ id: '42' });
    expect(matchPath('/a/:x/b/:y', '/a/one%20two/b/%2F')).to.deep.equal({ x: 'one two', y: '/' });
  });

  it('refuses another literal or another number of parts', () => {
    expect(matchPath('/tickets/:id', '/tickets')).to.equal(null);
    expect(matchPath('/tickets/:id', '/tickets/42/history')).to.equal(null);
    expect(matchPath('/admin/users', '/admin/projects')).to.equal(null);
  });

  it('finds the first route that matches, with its parameters', () => {
    const routes = [{ path: '/tickets' }, { path: '/tickets/:id' }, { path: '/tickets/new' }];
    expect(findRoute(routes, '/tickets/new')).to.deep.equal({ route: routes[1], params: { id: 'new' } });
    expect(findRoute(routes, '/tickets')).to.deep.equal({ route: routes[0], params: {} });
    expect(findRoute(routes, '/nowhere')).to.equal(null);
  });
});
