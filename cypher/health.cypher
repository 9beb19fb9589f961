// @name ping
RETURN 1 AS ok
