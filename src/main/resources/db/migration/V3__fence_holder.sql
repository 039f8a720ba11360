-- The holder that wrote the newest token. Redis can lose its token counter and hand the same number to
-- a new holder; comparing the holder too keeps that holder's writes apart from the old one's.
alter table fences add column holder text;
