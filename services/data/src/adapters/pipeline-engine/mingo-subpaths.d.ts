/**
 * mingo publishes these subpaths through package.json `exports`, which this repository's
 * `moduleResolution: node` does not read; the declarations point at mingo's own type files.
 */
declare module 'mingo/aggregator' {
  export * from 'mingo/types/aggregator';
}
declare module 'mingo/core' {
  export * from 'mingo/types/core/index';
}
declare module 'mingo/operators/accumulator' {
  export * from 'mingo/types/operators/accumulator/index';
}
declare module 'mingo/operators/expression' {
  export * from 'mingo/types/operators/expression/index';
}
declare module 'mingo/operators/pipeline' {
  export * from 'mingo/types/operators/pipeline/index';
}
declare module 'mingo/operators/projection' {
  export * from 'mingo/types/operators/projection/index';
}
declare module 'mingo/operators/query' {
  export * from 'mingo/types/operators/query/index';
}
declare module 'mingo/operators/window' {
  export * from 'mingo/types/operators/window/index';
}
