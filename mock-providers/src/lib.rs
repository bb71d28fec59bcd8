//! Mock provider validators and transcript repair: not built yet (issue 5). Nothing here pretends to work.
