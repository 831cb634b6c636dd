import { expect } from 'chai';
import type { Project } from '../../src/projects';
import {
  assignableUsers,
  capitalised,
  formatBytes,
  isPriority,
  parseTags,
  resolutionLabel,
  statusLabel,
  ticketPath,
  consoleCommentHtml,
  userName,
  type User,
} from '../../src/screens/ticket/model';

const project = {
  id: 1,
  slug: 'acme support',
  statuses: [
    { slug: 'open', label: 'Open' },
    { slug: 'in_progress', label: 'In progress' },
  ],
} as unknown as Project;

const user = (id: number, extra: Partial<User> = {}) =>
  ({ id, name: `Person ${id}`, is_active: true, is_system: false, ...extra }) as User;

describe('the ticket screens’ helpers', () => {
  it('knows the contract’s priorities only', () => {
    expect(isPriority('high')).to.equal(true);
    expect(isPriority('critical')).to.equal(true);
    expect(isPriority('severe')).to.equal(false);
  });

  it('labels values, statuses and resolutions', () => {
    expect(capitalised('in_progress')).to.equal('In progress');
    expect(capitalised('')).to.equal('');
    expect(statusLabel(project, 'in_progress')).to.equal('In progress');
    expect(statusLabel(project, 'gone')).to.equal('gone');
    expect(resolutionLabel('wont_fix')).to.equal("Won't fix");
    expect(resolutionLabel(null)).to.equal('None');
  });

  it('offers active people for assignment, not the assistant, and names users', () => {
    const users = [user(1), user(2, { is_active: false }), user(3, { is_system: true })];
    expect(assignableUsers(users).map((each) => each.id)).to.deep.equal([1]);
    const byId = new Map(users.map((each) => [each.id, each]));
    expect(userName(byId, null)).to.equal('Unassigned');
    expect(userName(byId, 1)).to.equal('Person 1');
    expect(userName(byId, 9)).to.equal('User 9');
  });

  it('writes sizes in B, KB and MB', () => {
    expect(formatBytes(512)).to.equal('512 B');
    expect(formatBytes(1536)).to.equal('1.5 KB');
    expect(formatBytes(5 * 1024 * 1024)).to.equal('5.0 MB');
  });

  it('parses tags as the server does: trimmed, lower-cased, once each', () => {
    expect(parseTags('billing, VIP ,billing,, ')).to.deep.equal(['billing', 'vip']);
    expect(parseTags('')).to.deep.equal([]);
  });

  it('addresses a ticket in its project', () => {
    expect(ticketPath(42, project)).to.equal('/tickets/42?project=acme%20support');
  });
});

describe('consoleCommentHtml', () => {
  it("points an attachment image at the session API's download path of the project", () => {
    expect(
      consoleCommentHtml(
        '<p>See:</p><img src="/attachments/41/download" alt="shot" /><img alt="b" src="/attachments/7/download" />',
        { id: 3 },
      ),
    ).to.equal(
      '<p>See:</p><img src="/api/attachments/41/download?project_id=3" alt="shot" /><img alt="b" src="/api/attachments/7/download?project_id=3" />',
    );
  });

  it('leaves links and text naming the same path alone', () => {
    const html = '<p>/attachments/41/download</p><a href="/attachments/41/download">x</a>';
    expect(consoleCommentHtml(html, { id: 3 })).to.equal(html);
  });
});
