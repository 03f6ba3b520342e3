import Table, { type TableProps } from '@douyinfe/semi-ui/lib/es/table';
import type { TablePaginationProps } from '@douyinfe/semi-ui/lib/es/table/interface';

/** What a paged query hook (usePagedQuery) hands the table. */
interface PagedRows<Row> {
  rows: Row[];
  total: number;
  loading: boolean;
}

/** The page the caller's table state keeps; the caller decides what a new page size also resets. */
interface Paging {
  page: number;
  pageSize: number;
  setPage(page: number): void;
  setPageSize(size: number): void;
}

type PagedTableProps<Row extends { id: number }> = Omit<TableProps<Row>, 'dataSource' | 'loading' | 'pagination' | 'rowKey'> & {
  query: PagedRows<Row>;
  paging: Paging;
  /** The pager's range text, for a list whose total is not known (Semi's own text otherwise). */
  formatPageText?: TablePaginationProps['formatPageText'];
};

const PAGE_SIZES = [10, 20, 50, 100];

/**
 * A table of server-paged rows keyed by id, with the page sizes every console list offers. Wide rows
 * scroll sideways rather than squeezing their columns, unless the caller passes its own `scroll`.
 */
export function PagedTable<Row extends { id: number }>({ query, paging, formatPageText, ...tableProps }: PagedTableProps<Row>) {
  return (
    <Table<Row>
      rowKey="id"
      scroll={{ x: 'max-content' }}
      {...tableProps}
      dataSource={query.rows}
      loading={query.loading}
      pagination={{
        currentPage: paging.page,
        pageSize: paging.pageSize,
        total: query.total,
        pageSizeOpts: PAGE_SIZES,
        showSizeChanger: true,
        onPageChange: paging.setPage,
        onPageSizeChange: paging.setPageSize,
        ...(formatPageText === undefined ? {} : { formatPageText }),
      }}
    />
  );
}
