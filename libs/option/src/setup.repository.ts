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

  async insert(version: string, manager?: EntityManager): Promise<void> {
    const repo = manager ? manager.getRepository(SetupEntity) : this.rows;
    await repo.insert({ version, initializedAt: nowSeconds() });
  }
}
