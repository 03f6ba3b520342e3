import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Not, type Repository } from 'typeorm';
import { SessionEntity } from './session.entity.js';

@Injectable()
export class SessionRepository {
  constructor(@InjectRepository(SessionEntity) private readonly rows: Repository<SessionEntity>) {}

  async insert(session: SessionEntity): Promise<void> {
    await this.rows.insert(session);
  }

  findById(id: string): Promise<SessionEntity | null> {
    return this.rows.findOne({ where: { id } });
  }

  async delete(id: string): Promise<void> {
    await this.rows.delete({ id });
  }

  /** Ends every session of a user, optionally sparing one (the caller's own, after a password change). */
  async deleteForUser(userId: number, exceptId?: string): Promise<void> {
    await this.rows.delete(exceptId ? { userId, id: Not(exceptId) } : { userId });
  }

  async deleteExpired(now: number): Promise<void> {
    await this.rows.delete({ expiresAt: LessThan(now) });
  }
}
