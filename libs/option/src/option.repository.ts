import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { OptionEntity } from './option.entity.js';

@Injectable()
export class OptionRepository {
  constructor(@InjectRepository(OptionEntity) private readonly rows: Repository<OptionEntity>) {}

  async findAll(): Promise<OptionEntity[]> {
    return this.rows.find();
  }

  /** Insert or replace one key, portable across SQLite, MySQL and PostgreSQL. */
  async save(key: string, value: string): Promise<void> {
    await this.rows.upsert({ key, value }, ['key']);
  }

  async deleteKeys(keys: string[]): Promise<void> {
    if (keys.length) await this.rows.delete(keys);
  }
}
