import type { ConsoleRole } from '@baas/common';
import { leavesNoOwner } from './members';

const m = (accountId: string, role: ConsoleRole) => ({ accountId, role });

describe('leavesNoOwner (the last-owner rule)', () => {
  it('refuses demoting or removing the only owner', () => {
    const members = [m('a', 'owner'), m('b', 'developer'), m('c', 'viewer')];
    expect(leavesNoOwner(members, 'a', 'developer')).toBe(true);
    expect(leavesNoOwner(members, 'a', 'viewer')).toBe(true);
    expect(leavesNoOwner(members, 'a', null)).toBe(true);
  });

  it('lets one of two owners go, and keeps an owner who stays owner', () => {
    const members = [m('a', 'owner'), m('b', 'owner')];
    expect(leavesNoOwner(members, 'a', null)).toBe(false);
    expect(leavesNoOwner(members, 'b', 'viewer')).toBe(false);
    expect(leavesNoOwner([m('a', 'owner')], 'a', 'owner')).toBe(false);
  });

  it('leaves every change to other members alone', () => {
    const members = [m('a', 'owner'), m('b', 'developer')];
    expect(leavesNoOwner(members, 'b', null)).toBe(false);
    expect(leavesNoOwner(members, 'b', 'viewer')).toBe(false);
    expect(leavesNoOwner(members, 'new', 'viewer')).toBe(false);
  });

  it('has nothing to protect in a project without owners (platform admins manage it)', () => {
    expect(leavesNoOwner([], 'a', 'viewer')).toBe(false);
    expect(leavesNoOwner([m('a', 'developer')], 'a', null)).toBe(false);
    expect(leavesNoOwner([m('a', 'developer'), m('b', 'viewer')], 'b', 'developer')).toBe(false);
  });

  it('counts an owner promoted by the same change', () => {
    expect(leavesNoOwner([m('a', 'owner')], 'b', 'owner')).toBe(false);
  });
});
