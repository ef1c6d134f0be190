import { ObjectId, type Collection, type Db, type Filter } from 'mongodb';
import { trustedProjectId, type ProjectId } from '@baas/common';
import { isDuplicateKeyError } from '@baas/common/mongo';
import type { StoredTemplate, TemplateContent, TemplateOwner } from '../domain/templates/template';
import type { TemplateRepository } from '../ports';

/** `owner` is the project id, or "global" for platform templates. */
interface TemplateDoc {
  _id: ObjectId;
  owner: string;
  key: string;
  name: string;
  subject: string;
  html?: string;
  text?: string;
  mjml?: string;
  compiledHtml?: string;
  createdAt: Date;
  updatedAt: Date;
}

const GLOBAL = 'global';
const ownerValue = (o: TemplateOwner): string => (o.scope === 'global' ? GLOBAL : o.projectId);

function toTemplate(d: TemplateDoc): StoredTemplate {
  const owner: TemplateOwner =
    d.owner === GLOBAL ? { scope: 'global' } : { scope: 'project', projectId: trustedProjectId(d.owner) };
  const t: StoredTemplate = {
    id: d._id.toHexString(),
    key: d.key,
    owner,
    name: d.name,
    subject: d.subject,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
  if (d.html !== undefined) t.html = d.html;
  if (d.text !== undefined) t.text = d.text;
  if (d.mjml !== undefined) t.mjml = d.mjml;
  if (d.compiledHtml !== undefined) t.compiledHtml = d.compiledHtml;
  return t;
}

const CONTENT_FIELDS = ['html', 'text', 'mjml', 'compiledHtml'] as const;

export class MongoTemplateRepository implements TemplateRepository {
  readonly coll: Collection<TemplateDoc>;
  constructor(db: Db) {
    this.coll = db.collection<TemplateDoc>('templates');
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ owner: 1, key: 1 }, { unique: true });
    await this.coll.createIndex({ owner: 1, name: 1 });
  }

  /** Insert first; a duplicate key means it exists, so replace its content (keeping id and createdAt). */
  async save(owner: TemplateOwner, key: string, content: TemplateContent) {
    const now = new Date();
    for (let attempt = 0; attempt < 3; attempt++) {
      const doc: TemplateDoc = {
        _id: new ObjectId(),
        owner: ownerValue(owner),
        key,
        ...content,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await this.coll.insertOne(doc);
        return { template: toTemplate(doc), created: true };
      } catch (e) {
        if (!isDuplicateKeyError(e)) throw e;
      }
      const $set: Partial<TemplateDoc> = { name: content.name, subject: content.subject, updatedAt: now };
      const $unset: Record<string, ''> = {};
      for (const f of CONTENT_FIELDS) {
        if (content[f] !== undefined) $set[f] = content[f];
        else $unset[f] = '';
      }
      const update = Object.keys($unset).length > 0 ? { $set, $unset } : { $set };
      const replaced = await this.coll.findOneAndUpdate({ owner: ownerValue(owner), key }, update, {
        returnDocument: 'after',
      });
      // Deleted between our insert and update: try the insert again.
      if (replaced) return { template: toTemplate(replaced), created: false };
    }
    throw new Error('template save did not settle');
  }

  async findByKey(owner: TemplateOwner, key: string): Promise<StoredTemplate | null> {
    const d = await this.coll.findOne({ owner: ownerValue(owner), key });
    return d ? toTemplate(d) : null;
  }

  async findByKeyOrName(owner: TemplateOwner, keyOrName: string): Promise<StoredTemplate | null> {
    const byKey = await this.coll.findOne({ owner: ownerValue(owner), key: keyOrName });
    if (byKey) return toTemplate(byKey);
    const byName = await this.coll
      .find({ owner: ownerValue(owner), name: keyOrName })
      .sort({ createdAt: 1 })
      .limit(1)
      .next();
    return byName ? toTemplate(byName) : null;
  }

  async findVisibleById(projectId: ProjectId, id: string): Promise<StoredTemplate | null> {
    if (!ObjectId.isValid(id)) return null;
    const filter: Filter<TemplateDoc> = { _id: new ObjectId(id), owner: { $in: [projectId, GLOBAL] } };
    const d = await this.coll.findOne(filter);
    return d ? toTemplate(d) : null;
  }

  async list(owner: TemplateOwner): Promise<StoredTemplate[]> {
    const docs = await this.coll
      .find({ owner: ownerValue(owner) })
      .sort({ key: 1 })
      .limit(1000)
      .toArray();
    return docs.map(toTemplate);
  }

  async delete(owner: TemplateOwner, key: string): Promise<StoredTemplate | null> {
    const d = await this.coll.findOne({ owner: ownerValue(owner), key });
    if (!d) return null;
    // The delete's count says who deleted it. findOneAndDelete is a find and a delete on FerretDB
    // 1.x, which hands the document to every caller that races it (each would answer 200).
    const r = await this.coll.deleteOne({ _id: d._id });
    return r.deletedCount === 1 ? toTemplate(d) : null;
  }

  async deleteAllOfProject(projectId: ProjectId): Promise<number> {
    const r = await this.coll.deleteMany({ owner: projectId });
    return r.deletedCount;
  }
}
