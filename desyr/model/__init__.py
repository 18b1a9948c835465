"""DeSyR's data model: the problem, point sets, candidates, search types, outcomes and the result."""
