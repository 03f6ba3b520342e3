import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { nowSeconds } from '@gw/database';
import { SetupEntity } from './setup.entity.js';

@Injectable()
export class SetupRepository {
  constructor(@InjectRepository(SetupEntity) private readonly rows: Repository<SetupEntity>) {}

  async exists(): Promise<boolean> {
    return (await this.rows.count()) > 0;
  }

  /**
   * Whether a root user exists: a one-api database (or a new-api one from before its setup table) has an
   * administrator but no setup row. The users table belongs to the user lib above this one, so it is read
   * by name here rather than through its entity.
   */
  async rootUserExists(): Promise<boolean> {
    const rows: unknown[] = await this.rows.manager.query('SELECT id FROM users WHERE role >= 100 AND deleted_at IS NULL LIMIT 1');
    return rows.length > 0;
  }

  async insert(version: string, manager?: EntityManager): Promise<void> {
    const repo = manager ? manager.getRepository(SetupEntity) : this.rows;
    await repo.insert({ version, initializedAt: nowSeconds() });
  }
}
