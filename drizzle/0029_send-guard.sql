-- A repeat send as one statement (decision 0083): each part's condition is passed to this guard,
-- which raises SQLSTATE SB001 when it does not hold, rolling the whole statement back. The
-- service then makes the send in the classic order, which decides every refusal. Volatile (the
-- default), so Postgres evaluates it in every statement and never folds it away.
CREATE FUNCTION switchboard_expect(ok boolean, refusal text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION 'switchboard_expect: %', refusal USING ERRCODE = 'SB001';
  END IF;
  RETURN true;
END
$$;
